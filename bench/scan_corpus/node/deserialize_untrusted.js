// expect: CWE-502 (an uploaded file is deserialised with node-serialize, which runs functions inside it)
const express = require("express");
const serialize = require("node-serialize");
const router = express.Router();

router.post("/import", function (req, res) {
  const items = serialize.unserialize(req.files.items.data.toString("utf8"));
  res.json({ imported: items.length });
});

module.exports = router;
