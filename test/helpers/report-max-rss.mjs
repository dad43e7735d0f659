// Preloaded (--import) into a child process under test: on exit it writes the
// process's peak resident memory (getrusage ru_maxrss, in KiB) to stderr, so a
// test can bound a command's memory without hooks in the product.
import { writeSync } from 'node:fs';

process.on('exit', () => {
  writeSync(2, `\nmax-rss-kib=${process.resourceUsage().maxRSS}\n`);
});
