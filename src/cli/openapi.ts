import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';

export function registerOpenApi(program: Command): void {
  program
    .command('openapi')
    .description('print the OpenAPI 3.1 document a server serves at /api/v1/openapi.json (no server or database needed)')
    .option('--out <file>', 'write it to this file instead of stdout')
    .action(async (o: { out?: string }) => {
      // imported here: it builds the HTTP app, which only this command needs
      const { openApiDocumentText } = await import('../http/openapi-document.js');
      const text = `${JSON.stringify(JSON.parse(await openApiDocumentText()), null, 2)}\n`;
      if (o.out) writeFileSync(o.out, text);
      else process.stdout.write(text);
    });
}
