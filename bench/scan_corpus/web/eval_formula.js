// expect: CWE-95 (a formula from the form evaluated as code)
function appraise(form) {
  const formula = form.elements.formula.value;
  return eval(formula);
}
