/** Where the Streamable HTTP endpoint lives (spec §1); a module of its own so mounting it loads no SDK. */
export const MCP_PATH = '/api/public/mcp';
