// expect: none (numbers parsed, eval only mentioned in comments and strings)
const express = require("express");
const router = express.Router();

router.post("/contributions", function (req, res) {
  // Fix for A1: do not use eval(req.body.preTax) here
  /* var preTax = eval(req.body.preTax); */
  const preTax = parseInt(req.body.preTax, 10);
  const help = "The old code called eval(req.body.preTax); this one parses numbers.";
  res.json({ preTax, help });
});

module.exports = router;
