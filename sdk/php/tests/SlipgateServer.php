<?php
// A real slipgate for the tests: `node dist/entry.cjs serve` (run `npm run
// build` in the repository first) on the sandbox network, a fresh SQLite
// database in a temporary folder, free loopback ports, accounts made with
// the CLI, and a webhook receiver (`php -S`, tests/receiver.php).
declare(strict_types=1);

namespace Slipgate\Tests;

final class SlipgateServer
{
    public readonly string $url;
    public readonly string $dir;
    public readonly string $receiverUrl;
    private readonly string $entry;
    private readonly array $env;
    /** @var list<resource> */
    private array $procs = [];

    public function __construct()
    {
        $root = dirname(__DIR__, 3);
        $this->entry = getenv('SLIPGATE_ENTRY') ?: $root . '/dist/entry.cjs';
        if (!is_file($this->entry)) {
            throw new \RuntimeException("{$this->entry} is missing: run `npm run build` in {$root} first");
        }
        $this->dir = sys_get_temp_dir() . '/slipgate-php-sdk-' . bin2hex(random_bytes(6));
        mkdir($this->dir . '/deliveries', 0700, true);
        $port = self::freePort();
        $env = [
            'DATABASE_URL' => "sqlite:{$this->dir}/slipgate.db", 'DATABASE_CREATE' => 'yes', 'PORT' => (string) $port, 'ADMIN_PORT' => '0',
            'PUBLIC_URL' => "http://127.0.0.1:{$port}", 'SECRETS_KEY' => str_repeat('7f', 32), 'WEBHOOK_ALLOW_PRIVATE' => 'true',
            'WEBHOOK_POLL_MS' => '20', 'API_KEY_CACHE_TTL_MS' => '0',
            // The first picture loads the decoders in a new thread: slow on a loaded test machine, not a failure.
            'IMAGE_DECODE_TIMEOUT_MS' => '60000', 'LOG_LEVEL' => 'info', 'LOG_FORMAT' => 'json', 'RECEIVER_DIR' => $this->dir . '/deliveries',
        ];
        $this->env = $env + getenv();

        $receiverPort = self::freePort();
        $this->procs[] = proc_open(['php', '-S', "127.0.0.1:{$receiverPort}", __DIR__ . '/receiver.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, $this->dir, $this->env);
        $this->receiverUrl = "http://127.0.0.1:{$receiverPort}/hooks";

        // The log goes to a file, read until the server says it listens: a full pipe never blocks it.
        $log = $this->dir . '/slipgate.log';
        $this->procs[] = proc_open(['node', $this->entry, 'serve'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', $log, 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, $this->dir, $this->env);
        $until = microtime(true) + 60;
        while (true) {
            foreach (file($log) ?: [] as $line) {
                $entry = json_decode($line, true);
                if (($entry['msg'] ?? null) === 'slipgate listening') {
                    $this->url = $entry['publicUrl'];
                    break 2;
                }
            }
            if (!proc_get_status($this->procs[1])['running'] || microtime(true) > $until) {
                $message = 'slipgate stopped or did not listen: ' . file_get_contents($log);
                $this->stop();
                throw new \RuntimeException($message);
            }
            usleep(50_000);
        }
        $this->waitForReceiver($receiverPort);
    }

    private function waitForReceiver(int $port): void
    {
        for ($i = 0; $i < 200; $i++) {
            $socket = @fsockopen('127.0.0.1', $port, $errno, $error, 0.1);
            if ($socket !== false) {
                fclose($socket);
                return;
            }
            usleep(25_000);
        }
        throw new \RuntimeException('the webhook receiver did not listen');
    }

    /**
     * CLI commands on this server's database at once (each is a Node start): their stdouts, in order.
     * @param list<list<string>> $commands
     * @return list<string>
     */
    public function cli(array ...$commands): array
    {
        $running = [];
        foreach ($commands as $args) {
            $proc = proc_open(['node', $this->entry, ...$args], [0 => ['file', '/dev/null', 'r'], 1 => ['pipe', 'w'], 2 => ['pipe', 'w']], $pipes, $this->dir, $this->env);
            $running[] = [$proc, $pipes, $args];
        }
        $outs = [];
        foreach ($running as [$proc, $pipes, $args]) {
            $out = stream_get_contents($pipes[1]);
            $err = stream_get_contents($pipes[2]);
            if (proc_close($proc) !== 0) {
                throw new \RuntimeException('slipgate ' . implode(' ', $args) . " failed: {$err}");
            }
            $outs[] = $out;
        }
        return $outs;
    }

    /** @return array{0: string, 1: string} the verification.succeeded delivery of that verify answer: raw body, signature header */
    public function eventAbout(string $requestId): array
    {
        $until = microtime(true) + 20;
        while (microtime(true) < $until) {
            foreach (glob($this->dir . '/deliveries/*.json') ?: [] as $file) {
                $delivery = json_decode((string) file_get_contents($file), true);
                $body = base64_decode($delivery['body'], true);
                $event = json_decode($body, true);
                if (($event['type'] ?? null) === 'verification.succeeded' && ($event['data']['requestId'] ?? null) === $requestId) {
                    return [$body, $delivery['signature']];
                }
            }
            usleep(50_000);
        }
        throw new \RuntimeException("no delivery for {$requestId}");
    }

    public function stop(): void
    {
        foreach (array_reverse($this->procs) as $proc) {
            proc_terminate($proc);
            proc_close($proc);
        }
        exec('rm -rf ' . escapeshellarg($this->dir));
    }

    private static function freePort(): int
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        return $port;
    }
}
