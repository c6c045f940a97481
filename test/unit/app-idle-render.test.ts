// The app's paint scheduling: a key's paint runs on the next turn, scan
// progress waits for the gap after the last paint (the frame is repainted
// for it at most that often), and a paint in between counts as its paint.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppState } from '../../src/app/context.js';
import type { AppFlags } from '../../src/app/flags.js';
import { makeTheme } from '../../src/widgets/theme.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'performance'] });
});
afterEach(() => {
  vi.useRealTimers();
});

function state(): { st: AppState; paints: () => number } {
  const st = new AppState({} as never, makeTheme({}), {} as AppFlags, {});
  let paints = 0;
  // As the frame's paint: it clears the queue and notes when it ran.
  st.paint = () => {
    st.notePainted();
    paints++;
  };
  return { st, paints: () => paints };
}

describe('AppState paint scheduling', () => {
  it('progress right after a paint waits for the gap; many requests make one paint', async () => {
    const { st, paints } = state();
    st.requestRender();
    await vi.advanceTimersByTimeAsync(0);
    expect(paints()).toBe(1);
    for (let i = 0; i < 20; i++) {
      st.requestIdleRender(250);
      await vi.advanceTimersByTimeAsync(10);
    }
    // 200 ms after the paint: still waiting.
    expect(paints()).toBe(1);
    await vi.advanceTimersByTimeAsync(60);
    expect(paints()).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(paints()).toBe(2);
  });

  it('a key paint in between shows the progress: no second paint for it, and later progress still gets one', async () => {
    const { st, paints } = state();
    st.requestRender();
    await vi.advanceTimersByTimeAsync(0);
    st.requestIdleRender(250);
    await vi.advanceTimersByTimeAsync(50);
    st.requestRender();
    await vi.advanceTimersByTimeAsync(0);
    expect(paints()).toBe(2);
    await vi.advanceTimersByTimeAsync(400);
    expect(paints()).toBe(2);
    // Progress after that paint: its own paint once the gap has passed.
    st.requestIdleRender(250);
    await vi.advanceTimersByTimeAsync(0);
    expect(paints()).toBe(3);
  });

  it('progress that arrives after the paint that answered an earlier request is painted too', async () => {
    const { st, paints } = state();
    st.requestRender();
    await vi.advanceTimersByTimeAsync(0);
    st.requestIdleRender(250);
    await vi.advanceTimersByTimeAsync(100);
    st.requestRender();
    await vi.advanceTimersByTimeAsync(0);
    st.requestIdleRender(250);
    await vi.advanceTimersByTimeAsync(1000);
    expect(paints()).toBe(3);
  });
});
