import type { ToolSurface } from './build-server.ts';
import { callTool } from './call-tool.ts';
import { unknownTool } from './map-error.ts';
import type { ToolIndex } from './tools.ts';
import type { Selection } from './toolsets.ts';

/** Every operation of the selection as its own tool (the default mode). */
export function directTools(index: ToolIndex, selection: Selection, scopes: readonly string[] | null): ToolSurface {
  const tools = index.tools(selection);
  const list = index.list(selection, scopes);
  return {
    listChanges: false,
    list: () => list,
    call: async (name, args, context) => {
      const caller = await context.caller();
      const entry = tools.get(name);
      if (!entry) throw unknownTool(name, [...tools.keys()], caller.requestId, caller.services.config.PUBLIC_BASE_URL);
      return callTool(entry, args, caller);
    },
  };
}
