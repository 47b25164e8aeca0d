-- A rotated key names its successor, so a key is rotated once: a second rotation during its grace
-- period is refused instead of making a second successor. Keys rotated before are unmarked.
ALTER TABLE "api_keys" ADD COLUMN "replaced_by" text;
