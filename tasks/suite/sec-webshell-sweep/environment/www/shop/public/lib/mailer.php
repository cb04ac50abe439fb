<?php
// Receipt mails. The HTML template is stored base64-encoded so that the
// deploy tooling does not mangle its inline CSS.
const RECEIPT_TEMPLATE = 'PGgxPlRoYW5rcyBmb3IgeW91ciBvcmRlciB7e2lkfX08L2gxPg==';

function send_receipt(array $order): void
{
    $html = str_replace('{{id}}', (string)$order['id'], base64_decode(RECEIPT_TEMPLATE));
    mail($order['email'], 'Your order ' . $order['id'], $html, "Content-Type: text/html\r\n");
}
