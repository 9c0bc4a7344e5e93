// expect: none (an SQL ORM's where object binds the request's values as parameters)
const express = require("express");
const db = require("./models");
const router = express.Router();

router.get("/product", function (req, res) {
  db.Product.findOne({ where: { id: req.query.id } }).then((product) => res.json(product));
});

router.post("/user", function (req, res) {
  db.User.find({ where: { login: req.body.login } }).then((user) => res.json({ found: Boolean(user) }));
});

module.exports = router;
