// expect: CWE-79 (DOM XSS: the address's fragment written as HTML)
const greeting = document.getElementById("greeting");
const name = decodeURIComponent(location.hash.slice(1));
greeting.innerHTML = "<h2>Welcome back, " + name + "</h2>";
