/** Anything with an area. */
export interface Shape {
  area(): number;
}

/** A round shape. */
export class Circle implements Shape {
  constructor(private radius: number) {}
  area(): number {
    return Math.PI * this.radius * this.radius;
  }
}

/** Adds up the areas of shapes. */
export function totalArea(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}
