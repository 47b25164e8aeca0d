/** The workflow engine: the template language, the definition format and the DAG runner. */
export * from './template.js';
export * from './workflow-definition.js';
export * from './compile-workflow.js';
export * from './run-workflow.js';
