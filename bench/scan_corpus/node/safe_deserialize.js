// expect: none (the upload is parsed as JSON, which builds data only)
const express = require("express");
const router = express.Router();

router.post("/import", function (req, res) {
  const items = JSON.parse(req.files.items.data.toString("utf8"));
  res.json({ imported: Array.isArray(items) ? items.length : 0 });
});

module.exports = router;
