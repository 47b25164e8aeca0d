import { v7 as uuidv7, validate as isUuid } from 'uuid';

/** New identifiers are UUIDv7: sortable by creation time, so "newest first" is "highest id first". */
export function newId(): string {
  return uuidv7();
}

export { isUuid };
