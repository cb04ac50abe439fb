<?php
require __DIR__ . '/../bootstrap.php';

session_start();
$cart = $_SESSION['cart'] ?? [];
if ($_SERVER['REQUEST_METHOD'] === 'POST') {
    $id = (int)$_POST['product_id'];
    $qty = max(1, min(99, (int)$_POST['qty']));
    $cart[$id] = ($cart[$id] ?? 0) + $qty;
    $_SESSION['cart'] = $cart;
}
render('cart', ['items' => cart_items($db, $cart)]);
