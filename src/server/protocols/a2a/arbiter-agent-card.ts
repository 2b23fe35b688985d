import type { AgentCard } from '@a2a-js/sdk';
import type { ToolSet } from '../../../tools/tool-registry.js';

/**
 * The Agent Card `arbiter serve` publishes: one skill per tool of the tools
 * module (its name, description and side effect as tags), the JSON-RPC
 * endpoint at `url`, and the bearer tokens of the auth file as the only
 * security scheme.
 *
 * @example
 * arbiterAgentCard({ tools, url: 'http://127.0.0.1:8787/v1/a2a' });
 */
export function arbiterAgentCard({
  tools,
  url,
  name = 'arbiter',
  description = 'An arbiter agent: every tool call is validated, gated and audited; dangerous calls wait for a person.',
}: {
  tools: ToolSet;
  url: string;
  name?: string;
  description?: string;
}): AgentCard {
  return {
    name,
    description,
    supportedInterfaces: [{ url, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: '1.0' }],
    provider: undefined,
    version: '1.0.0',
    capabilities: { streaming: true, pushNotifications: false, extensions: [] },
    securitySchemes: {
      bearer: {
        scheme: {
          $case: 'httpAuthSecurityScheme',
          value: { description: 'a token of the server auth file', scheme: 'Bearer', bearerFormat: '' },
        },
      },
    },
    securityRequirements: [{ schemes: { bearer: { list: [] } } }],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: tools.names
      .map((toolName) => tools.get(toolName))
      .filter((tool) => tool !== undefined)
      .map(({ definition: tool }) => ({
        id: tool.name,
        name: tool.name,
        description: tool.description,
        tags: [tool.sideEffect],
        examples: [],
        inputModes: ['text/plain'],
        outputModes: ['text/plain'],
        securityRequirements: [],
      })),
    signatures: [],
  };
}
