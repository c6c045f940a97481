// `scan --demo` and `doctor --demo`: the command on the app's throw-away
// demo home (src/demo/demo-open.ts), removed when the command ends. Its
// OpenCode store is waited for (bounded by its own build timeout), so the
// report has all four agents.

import type { EngineFactory } from './engine-factory.js';

export async function withDemoHome(
  base: Readonly<Record<string, string | undefined>>,
  run: (engine: EngineFactory, env: Readonly<Record<string, string | undefined>>) => Promise<number>,
): Promise<number> {
  const [{ openDemoHome }, { cliEngine }] = await Promise.all([import('../demo/demo-open.js'), import('./engine-factory.js')]);
  const { demo, env } = await openDemoHome(base, false);
  try {
    await demo.build;
    const engine: EngineFactory = async (o) => {
      const e = cliEngine(env, o);
      demo.engine = e;
      return e;
    };
    return await run(engine, env);
  } finally {
    await demo.finish();
  }
}
