<?php
$env = parse_ini_file(__DIR__ . '/.env');
$db = new PDO("mysql:host={$env['DB_HOST']};dbname={$env['DB_NAME']}", $env['DB_USER'], $env['DB_PASSWORD']);
function render(string $view, array $vars): void { extract($vars); require __DIR__ . "/views/$view.php"; }
