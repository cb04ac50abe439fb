<?php
function catalog_page(PDO $db, int $page, int $per): array
{
    $st = $db->prepare('SELECT id, name, price_cents, image FROM products ORDER BY id LIMIT ? OFFSET ?');
    $st->execute([$per, ($page - 1) * $per]);
    return $st->fetchAll(PDO::FETCH_ASSOC);
}

function cart_items(PDO $db, array $cart): array
{
    if (!$cart) {
        return [];
    }
    $in = implode(',', array_fill(0, count($cart), '?'));
    $st = $db->prepare("SELECT id, name, price_cents FROM products WHERE id IN ($in)");
    $st->execute(array_keys($cart));
    return $st->fetchAll(PDO::FETCH_ASSOC);
}
