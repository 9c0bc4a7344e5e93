// expect: none (the evaluator runs a constant formula; the request only supplies numbers)
const express = require("express");
const math = require("mathjs");
const router = express.Router();

router.post("/area", function (req, res) {
  const radius = Number(req.body.radius);
  res.json({ area: math.evaluate("pi * r ^ 2", { r: radius }) });
});

module.exports = router;
