// expect: CWE-611 (uploaded XML parsed with entity substitution on: XXE reads local files)
const express = require("express");
const libxmljs = require("libxmljs");
const router = express.Router();

router.post("/products", function (req, res) {
  const doc = libxmljs.parseXmlString(req.body.xml, { noent: true, noblanks: true });
  res.json({ products: doc.root().childNodes().length });
});

module.exports = router;
