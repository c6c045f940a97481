// Waits on a condition instead of a fixed sleep: a loaded machine may need
// far longer than a sleep guessed, a quiet one far less.

/** Polls `cond` every millisecond until it holds; fails naming `what` after `budgetMs`. */
export async function waitUntil(cond: () => boolean, what: string, budgetMs = 20_000): Promise<void> {
  const end = Date.now() + budgetMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${budgetMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 1));
  }
}
