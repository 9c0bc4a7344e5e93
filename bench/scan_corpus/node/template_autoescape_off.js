// expect: CWE-79 (the template engine is told not to escape: every value in every page is raw HTML)
const express = require("express");
const swig = require("swig");
const app = express();

app.engine("html", swig.renderFile);
swig.setDefaults({ autoescape: false });

app.get("/profile", (req, res) => res.render("profile", { bio: req.user.bio }));

app.listen(3000);
