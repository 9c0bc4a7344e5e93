// expect: CWE-22 (a file path taken from the request)
const express = require("express");
const fs = require("fs");
const path = require("path");
const app = express();

app.get("/download", function (req, res) {
  const file = path.join(__dirname, "uploads", req.query.name);
  fs.readFile(file, function (err, data) {
    res.send(data);
  });
});

app.listen(3000);
