<?php
// Thumbnails for product images, run from the nightly job with paths
// taken from the products table.
function make_thumb(string $src, string $dst): bool
{
    $cmd = sprintf('convert %s -resize 320x320 %s', escapeshellarg($src), escapeshellarg($dst));
    exec($cmd, $out, $rc);
    return $rc === 0;
}
