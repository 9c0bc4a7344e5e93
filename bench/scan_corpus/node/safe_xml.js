// expect: none (entities are left unexpanded, the default)
const express = require("express");
const libxmljs = require("libxmljs");
const router = express.Router();

router.post("/products", function (req, res) {
  const doc = libxmljs.parseXmlString(req.body.xml, { noblanks: true });
  res.json({ products: doc.root().childNodes().length });
});

module.exports = router;
