/** Where the Streamable HTTP endpoint lives (spec §1); a module of its own so mounting it loads no SDK. */
import { SITE_PATHS } from '../operations/site-paths.js';

export const MCP_PATH = SITE_PATHS.mcp;
