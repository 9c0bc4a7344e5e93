// expect: CWE-73 (the help page renders whichever view the query string names: ../ reads other files)
const express = require("express");
const app = express();
app.set("view engine", "ejs");

app.get("/help", function (req, res) {
  const topic = "help/" + req.query.topic;
  res.render(topic);
});

app.listen(3000);
