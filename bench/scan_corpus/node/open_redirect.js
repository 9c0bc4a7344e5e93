// expect: CWE-601 (the learn page redirects wherever ?url= points)
const express = require("express");
const app = express();

app.get("/learn", function (req, res) {
  return res.redirect(req.query.url);
});

app.listen(3000);
