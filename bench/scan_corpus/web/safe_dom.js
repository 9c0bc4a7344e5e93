// expect: none (text, not HTML; constant markup; eval only in comments and strings)
// Never do this: el.innerHTML = location.hash; eval(location.hash)
const note = "Do not call eval(input) on user data; innerHTML = value is unsafe";
const out = document.getElementById("out");
out.textContent = decodeURIComponent(location.hash.slice(1));
out.insertAdjacentHTML("beforeend", "<hr>");
document.getElementById("title").innerHTML = "<b>Report</b>";
console.log(note);
