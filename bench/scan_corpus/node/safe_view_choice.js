// expect: none (the view is picked from a fixed list; the request only selects among them)
const express = require("express");
const app = express();
app.set("view engine", "ejs");
const TOPICS = { billing: "help/billing", account: "help/account" };

app.get("/help", function (req, res) {
  res.render(TOPICS.billing, { title: "Help" });
});

app.listen(3000);
