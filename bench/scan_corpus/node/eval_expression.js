// expect: CWE-95 (a calculator hands the form's expression to an expression evaluator that can reach code)
const express = require("express");
const math = require("mathjs");
const router = express.Router();

router.post("/calc", function (req, res) {
  const expression = req.body.expression;
  res.json({ result: math.evaluate(expression) });
});

module.exports = router;
