// Tour AI: shows a translation. The result is written as HTML (an XSS risk the scanner should flag).
const dictionary = { hello: "hola", thanks: "gracias", help: "ayuda" };

function translatePhrase() {
  const phrase = document.getElementById("phrase").value.trim().toLowerCase();
  const translated = dictionary[phrase] || "(no translation)";
  document.getElementById("result").innerHTML = "<b>" + phrase + "</b> means " + translated;
}
