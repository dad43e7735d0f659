<?php
// A merchant's webhook endpoint under `php -S`: every POST's raw body and
// signature header, as received, into RECEIVER_DIR (one JSON file each).
$raw = file_get_contents('php://input');
$file = getenv('RECEIVER_DIR') . '/' . hrtime(true) . '-' . bin2hex(random_bytes(4)) . '.json';
file_put_contents($file . '.part', json_encode(['body' => base64_encode($raw), 'signature' => $_SERVER['HTTP_SLIPGATE_SIGNATURE'] ?? null]));
rename($file . '.part', $file);
http_response_code(204);
