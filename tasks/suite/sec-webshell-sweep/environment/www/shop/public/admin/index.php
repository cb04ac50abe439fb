<?php
require __DIR__ . '/../../bootstrap.php';
require_admin();
render('admin/dashboard', ['orders' => recent_orders($db, 50)]);
