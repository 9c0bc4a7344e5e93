// expect: CWE-1333 (a regular expression with nested repetition on user input)
const express = require("express");
const app = express();

app.post("/profile", function (req, res) {
  const regexPattern = /([0-9]+)+\#/;
  const testComplyWithRequirements = regexPattern.test(req.body.bankRouting);
  res.json({ ok: testComplyWithRequirements });
});

app.listen(3000);
