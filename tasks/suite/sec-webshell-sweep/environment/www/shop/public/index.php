<?php
require __DIR__ . '/../bootstrap.php';
require __DIR__ . '/lib/catalog.php';

$page = max(1, (int)($_GET['page'] ?? 1));
$products = catalog_page($db, $page, 24);
render('home', ['products' => $products, 'page' => $page]);
