// expect: CWE-943 (NoSQL injection: request data inside a $where expression)
const express = require("express");
const app = express();

app.get("/allocations", function (req, res) {
  const threshold = req.query.threshold;
  db.collection("allocations").find({
    $where: "this.userId == " + req.query.userId + " && this.stocks > '" + threshold + "'"
  }).toArray(function (err, allocations) {
    res.json(allocations);
  });
});

app.listen(3000);
