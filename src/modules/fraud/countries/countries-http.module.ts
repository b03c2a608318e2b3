import { Module } from '@nestjs/common';
import { CountriesController } from './countries.controller.js';
import { CountriesModule } from './countries.module.js';

/** The countries routes: the caller's own, and a parent's setting of its sub-accounts'. */
@Module({
  imports: [CountriesModule],
  controllers: [CountriesController],
})
export class CountriesHttpModule {}
