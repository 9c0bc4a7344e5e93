// expect: CWE-89 (SQL built from the query string)
const express = require("express");
const mysql = require("mysql");
const connection = mysql.createConnection({ host: "db" });
const app = express();

app.get("/user", function (req, res) {
  connection.query("SELECT * FROM users WHERE id = " + req.query.id, function (err, rows) {
    res.json(rows);
  });
});

app.listen(3000);
