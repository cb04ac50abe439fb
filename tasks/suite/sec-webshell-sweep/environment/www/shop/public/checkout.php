<?php
require __DIR__ . '/../bootstrap.php';
require __DIR__ . '/lib/mailer.php';

session_start();
$order = create_order($db, $_SESSION['cart'] ?? [], trim($_POST['email'] ?? ''));
$token = $_POST['payment_token'] ?? '';
if (!charge($order, $token)) {
    http_response_code(402);
    render('checkout_failed', ['order' => $order]);
    exit;
}
send_receipt($order);
render('thanks', ['order' => $order]);
