// expect: none (hardened session cookie, CSRF middleware, constant redirect, parameterised SQL, execFile)
const express = require("express");
const session = require("express-session");
const csrf = require("csurf");
const helmet = require("helmet");
const { execFile } = require("child_process");
const app = express();

app.use(helmet());
app.use(session({
  secret: process.env.SESSION_SECRET,
  resave: false,
  saveUninitialized: false,
  cookie: { httpOnly: true, secure: true, sameSite: "strict" }
}));
app.use(csrf());

app.get("/home", (req, res) => res.redirect("/dashboard"));

app.get("/user", (req, res) => {
  connection.query("SELECT * FROM users WHERE id = ?", [req.query.id], (err, rows) => res.json(rows));
});

app.get("/uptime", (req, res) => {
  execFile("uptime", [], (err, stdout) => res.type("text/plain").send(stdout));
});

app.listen(3000);
