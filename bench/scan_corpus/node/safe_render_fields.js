// expect: none (the template gets the fields it shows, escaped by <%= %>; the user's role is server data)
const express = require("express");
const app = express();
app.set("view engine", "ejs");
app.use(express.urlencoded({ extended: false }));

app.post("/preview", function (req, res) {
  res.render("preview", { title: String(req.body.title || ""), admin: req.user.role === "admin" });
});

app.listen(3000);
