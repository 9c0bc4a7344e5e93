// expect: CWE-79 (request data sent back as HTML)
const express = require("express");
const app = express();

app.get("/hello", function (req, res) {
  res.send("<h1>Hello " + req.query.name + "</h1>");
});

app.listen(3000);
