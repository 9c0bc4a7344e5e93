// expect: CWE-95 (server-side JavaScript injection: form fields evaluated)
const express = require("express");
const router = express.Router();

router.post("/contributions", function (req, res) {
  const preTax = eval(req.body.preTax);
  const afterTax = eval(req.body.afterTax);
  res.json({ total: preTax + afterTax });
});

module.exports = router;
