// expect: CWE-915 (the form's whole body becomes the template's data: it can set EJS's own options)
const express = require("express");
const app = express();
app.set("view engine", "ejs");
app.use(express.urlencoded({ extended: true }));

app.post("/preview", function (req, res) {
  res.render("preview", req.body);
});

app.listen(3000);
