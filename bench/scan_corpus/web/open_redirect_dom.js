// expect: CWE-601 (the page follows ?next= wherever it points)
const params = new URLSearchParams(window.location.search);
const next = params.get("next");
window.location.href = next;
