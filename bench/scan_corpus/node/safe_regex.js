// expect: none (anchored patterns without nested repetition)
const express = require("express");
const app = express();

app.post("/profile", function (req, res) {
  const routing = /^[0-9]{9}$/.test(req.body.bankRouting);
  const words = String(req.body.tags).split(/,\s*/);
  res.json({ routing, words });
});

app.listen(3000);
