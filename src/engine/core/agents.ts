// The agents this process knows, as the registry (src/adapters/registry.ts)
// installs them when it is loaded. Why a module-level list, like the language:
// a process knows one set of agents for its whole life, every entry point (the
// CLI, the worker, the demo) loads the registry before it parses a flag or
// reads a file, and the engine may not import the adapters. So outside the
// adapters nothing spells an agent: kinds, order and names come from here.

/** An agent's kind (model.ts's AgentKind; spelled here so model.ts may import this module). */
type AgentKind = string;

/** What every layer may know of an agent without its adapter. */
interface AgentFacts {
  kind: AgentKind;
  displayName: string;
}

let known: readonly AgentFacts[] = [];

/** Called by the registry only: the agents in the order the UI shows them. */
export function installAgents(agents: readonly AgentFacts[]): void {
  known = agents.map((a) => ({ kind: a.kind, displayName: a.displayName }));
}

/** Every known agent's kind, in registry order. */
export function agentKinds(): AgentKind[] {
  return known.map((a) => a.kind);
}

/** Whether an outside string (a flag, a file) names one of the known agents. */
export function isAgentKind(v: unknown): v is AgentKind {
  return typeof v === 'string' && known.some((a) => a.kind === v);
}

/** The agent's name as the user knows it; an unknown kind is shown as it is. */
export function agentName(kind: AgentKind): string {
  return known.find((a) => a.kind === kind)?.displayName ?? kind;
}

/** Registry order of a kind (unknown kinds last), for sorting rows of several agents. */
export function agentOrder(kind: AgentKind): number {
  const i = known.findIndex((a) => a.kind === kind);
  return i < 0 ? known.length : i;
}
