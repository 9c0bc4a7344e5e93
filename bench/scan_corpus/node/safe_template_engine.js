// expect: none (autoescaping stays on; the cache setting is not a security switch)
const express = require("express");
const nunjucks = require("nunjucks");
const app = express();

nunjucks.configure("views", { autoescape: true, noCache: false, express: app });

app.get("/profile", (req, res) => res.render("profile.njk", { bio: req.user.bio }));

app.listen(3000);
