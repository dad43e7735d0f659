<?php
// A server under `php -S` that answers as ANSWERS_DIR/answers.json says, the
// nth request with the nth answer (the last one after), counting requests in
// ANSWERS_DIR/requests. An answer with "hang" never answers in time.
$dir = getenv('ANSWERS_DIR');
$answers = json_decode((string) file_get_contents("{$dir}/answers.json"), true);
$n = (int) @file_get_contents("{$dir}/requests") + 1;
file_put_contents("{$dir}/requests", (string) $n);
$answer = $answers[min($n, count($answers)) - 1];
if ($answer['hang'] ?? false) {
    sleep(3);
    exit;
}
http_response_code($answer['status']);
foreach ($answer['headers'] ?? [] as $name => $value) {
    header("{$name}: {$value}");
}
header('content-type: application/json');
echo json_encode($answer['body']);
