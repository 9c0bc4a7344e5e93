// expect: CWE-918 (the server fetches a URL the request chose)
const express = require("express");
const needle = require("needle");
const app = express();

app.get("/research", function (req, res) {
  const url = req.query.url + req.query.symbol;
  return needle.get(url, function (error, newResponse, body) {
    res.send(body);
  });
});

app.listen(3000);
