// Gem AI: appraisal formula evaluated from a string (eval is flagged by the scanner).
const formula = "carats * 1200 + clarity * 300";

function appraise(carats, clarity) {
  return eval(formula);
}

document.getElementById("appraisal").textContent = "Estimated value: $" + appraise(1.2, 3);
