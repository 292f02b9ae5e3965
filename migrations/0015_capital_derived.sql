CREATE TABLE `capital_derived` (
	`archive_id` text NOT NULL,
	`seq` integer NOT NULL,
	`epoch` integer NOT NULL,
	`edges` text NOT NULL,
	PRIMARY KEY(`archive_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `capital_derived_mark` (
	`archive_id` text PRIMARY KEY NOT NULL,
	`epoch` integer NOT NULL,
	`seq` integer NOT NULL
);
