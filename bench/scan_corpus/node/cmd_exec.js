// expect: CWE-78 (a shell command built from the query string)
const express = require("express");
const { exec } = require("child_process");
const app = express();

app.get("/ping", function (req, res) {
  exec("ping -c 1 " + req.query.host, function (err, stdout) {
    res.send(stdout);
  });
});

app.listen(3000);
