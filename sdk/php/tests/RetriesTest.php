<?php
// What the client sends again, against a real local HTTP server
// (tests/answering.php under `php -S`) that answers as each case says: 503
// and 429 (answered before anything was charged) are sent again, a 500 and a
// timeout (either may have been charged) never are.
declare(strict_types=1);

namespace Slipgate\Tests;

use PHPUnit\Framework\TestCase;
use Slipgate\Client;
use Slipgate\ErrorAnswer;
use Slipgate\TransportException;

final class RetriesTest extends TestCase
{
    private const NOT_FOUND = ['status' => 200, 'headers' => ['x-credits-remaining' => '4'], 'body' => ['status' => 'error', 'message' => 'slip not found: transaction not found']];
    private static string $dir;
    private static string $url;
    /** @var resource */
    private static $server;

    public static function setUpBeforeClass(): void
    {
        self::$dir = sys_get_temp_dir() . '/slipgate-php-retries-' . bin2hex(random_bytes(6));
        mkdir(self::$dir, 0700, true);
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($probe, false), ':'), 1);
        fclose($probe);
        // One process: the hanging answer (the timeout test) is the last one this server gives.
        self::$server = proc_open(['php', '-S', "127.0.0.1:{$port}", __DIR__ . '/answering.php'], [0 => ['file', '/dev/null', 'r'], 1 => ['file', '/dev/null', 'w'], 2 => ['file', '/dev/null', 'w']], $pipes, self::$dir, ['ANSWERS_DIR' => self::$dir] + getenv());
        self::$url = "http://127.0.0.1:{$port}";
        for ($i = 0; $i < 200 && ($socket = @fsockopen('127.0.0.1', $port, $errno, $error, 0.1)) === false; $i++) {
            usleep(25_000);
        }
        if (isset($socket) && $socket !== false) {
            fclose($socket);
        }
    }

    public static function tearDownAfterClass(): void
    {
        proc_terminate(self::$server);
        proc_close(self::$server);
        exec('rm -rf ' . escapeshellarg(self::$dir));
    }

    private static function answering(array ...$answers): void
    {
        file_put_contents(self::$dir . '/answers.json', json_encode($answers));
        @unlink(self::$dir . '/requests');
    }

    private static function requests(): int
    {
        return (int) @file_get_contents(self::$dir . '/requests');
    }

    public function test503And429AreSentAgain(): void
    {
        self::answering(['status' => 503, 'headers' => ['retry-after' => '0'], 'body' => ['status' => 'error', 'message' => 'busy']], ['status' => 429, 'headers' => ['retry-after' => '0'], 'body' => ['status' => 'error', 'message' => 'slow down']], self::NOT_FOUND);
        $answer = (new Client(self::$url, 'slip_k', retryDelaySeconds: 0.01))->verify('qr');
        self::assertSame(['verification', 4, 3], [$answer->kind, $answer->creditsRemaining, self::requests()]);
    }

    public function testRetriesRunOut(): void
    {
        self::answering(['status' => 503, 'headers' => ['retry-after' => '0'], 'body' => ['status' => 'error', 'message' => 'busy']]);
        $answer = (new Client(self::$url, 'slip_k', retries: 1))->verify('qr');
        self::assertSame(['unavailable', true, 2], [$answer->kind, $answer->retryLater(), self::requests()]);
    }

    public function testA500IsNotSentAgain(): void
    {
        self::answering(['status' => 500, 'body' => ['status' => 'error', 'message' => 'may have been charged']], self::NOT_FOUND);
        $answer = (new Client(self::$url, 'slip_k'))->verify('qr');
        self::assertInstanceOf(ErrorAnswer::class, $answer);
        self::assertSame(['server_error', true, false, 1], [$answer->kind, $answer->mayHaveBeenCharged(), $answer->retrySafe(), self::requests()]);
    }

    public function testATimeoutIsNotSentAgain(): void
    {
        self::answering(['hang' => true], self::NOT_FOUND);
        try {
            (new Client(self::$url, 'slip_k', timeoutSeconds: 0.3))->verify('qr');
            self::fail('no timeout');
        } catch (TransportException $e) {
            self::assertSame(['timeout', true, false, 1], [$e->reason, $e->mayHaveBeenCharged, $e->retrySafe(), self::requests()]);
        }
    }

    public function testARefusedConnectionNeverReachedIt(): void
    {
        $probe = stream_socket_server('tcp://127.0.0.1:0');
        $closed = 'http://' . stream_socket_get_name($probe, false);
        fclose($probe);
        try {
            (new Client($closed, 'slip_k', retries: 1, retryDelaySeconds: 0.01))->verify('qr');
            self::fail('reached a closed port');
        } catch (TransportException $e) {
            self::assertSame(['network', false, 2], [$e->reason, $e->mayHaveBeenCharged, $e->attempts]);
        }
    }
}
