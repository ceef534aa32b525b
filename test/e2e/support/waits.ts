/**
 * Awaits `check` until it passes (resolves) and answers what it answered; its last error once
 * `ms` have passed. For what settles a moment after an answer: a destroyed connection's rollback
 * is the server's to finish, a killed query's thread the server's to end.
 */
export async function eventually<T>(check: () => Promise<T>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
