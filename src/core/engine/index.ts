/** The workflow engine: the template language, the definition format, node kinds and the DAG runner. */
export * from './template.js';
export * from './workflow-definition.js';
export * from './node-kinds/index.js';
export * from './node-kinds/node-kind.js';
export * from './compile-workflow.js';
export * from './run-workflow.js';
