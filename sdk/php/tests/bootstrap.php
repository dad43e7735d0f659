<?php
// composer.json's PSR-4 autoload without composer: Slipgate\X is src/X.php, Slipgate\Tests\X is tests/X.php.
spl_autoload_register(static function (string $class): void {
    foreach (['Slipgate\\Tests\\' => __DIR__ . '/', 'Slipgate\\' => __DIR__ . '/../src/'] as $prefix => $dir) {
        if (str_starts_with($class, $prefix)) {
            $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
            if (is_file($file)) {
                require $file;
            }
            return;
        }
    }
});
